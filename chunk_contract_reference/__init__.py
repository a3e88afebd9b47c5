"""Correct chunkers that keep the whole contract: the examples to copy when writing your own."""
