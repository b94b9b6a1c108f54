"""The audit: metrics (Eqs. 2-5), bootstrap, strata, ablations, open-ended judging, tables."""
