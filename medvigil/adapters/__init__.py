"""Adapters: turn other formats (authors' result files, harness logs) into probe records.

Every adapter returns records in the shape of ``schemas/probe_record.schema.json``;
every metric reads only those records.
"""
