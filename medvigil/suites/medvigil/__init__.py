"""MedVIGIL (seed 000): the release reader and validator, variants, the Hub export, readers of the
authors' result files, the metrics (Eqs. 2-7), ablations, sensitivity, the clinician row and the
synthetic release."""
