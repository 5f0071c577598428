// Replaced by the real benchmark driver.
