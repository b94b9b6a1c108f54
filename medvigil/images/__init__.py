"""Image operations shared by every suite: pure functions of (image, params), safe decoding checks
and the one image cache."""
