"""The Hub export engine of every suite (:mod:`~medvigil.hub.export_engine`) the build's allowlist
(:mod:`~medvigil.hub.build_manifest`), and what `medvigil publish` checks and sends."""
