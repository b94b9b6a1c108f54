"""Templates for dataset cards, datasheets and task/metric cards, filled at export."""

from pathlib import Path

CARDS_DIR = Path(__file__).resolve().parent
