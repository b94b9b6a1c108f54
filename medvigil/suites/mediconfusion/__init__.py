"""MediConfusion (Sepehri et al., NeurIPS 2024 workshop): release reading, synthetic pairs, export,
scoring."""
