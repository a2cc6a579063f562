"""What site builds and dataset runs share, below both: the worker pool that renders or checks
items in processes (:mod:`.pool`) and writing a file without ever leaving half of one
(:mod:`.files`)."""
