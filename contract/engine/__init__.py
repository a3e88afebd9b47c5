"""The run's engine room: what keeps every process a run starts under control."""
