"""What the app keeps on the computer and asks of it: the settings file, recovery files and their locks,
the BLAS threads, the paths of the shipped resources. Draws nothing."""
