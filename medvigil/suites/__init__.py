"""One room per suite: medvigil, mediconfusion, medqdeg, readiness, cbd."""
