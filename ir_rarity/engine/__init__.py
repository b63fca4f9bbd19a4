"""The vectorized evaluation engine: ordering, encoding, S_d lookup and measure kernels."""
