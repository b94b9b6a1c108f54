"""The one Hub export engine of every suite (:mod:`~medvigil.hub.export_engine`): Parquet shards,
build digest and report, dataset-card pieces, Croissant metadata, and the content scan run before
`medvigil publish` uploads anything."""
