"""Illusion of Readiness (seed 003): stress tests T1-T6 on multiple-choice items, R(m), tables."""
