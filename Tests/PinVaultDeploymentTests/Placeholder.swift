// Replaced by the first real file of this target.
