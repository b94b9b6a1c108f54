"""The Hub export engine of every suite (:mod:`~medvigil.hub.export_engine`) and the content scan before `medvigil publish`."""
