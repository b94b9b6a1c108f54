"""The Hub build: dataset configs and rows, image variants, the card, the publish check."""
