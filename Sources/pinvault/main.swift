// Replaced by the real command line.
