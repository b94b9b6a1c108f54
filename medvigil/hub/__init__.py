"""The Hub export engine every builder uses: Parquet shards, dataset-card pieces, Croissant metadata
and the content scan run before `medvigil publish` uploads anything."""
