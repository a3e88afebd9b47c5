"""Integrations with other tools: fuzzers (atheris, libFuzzer), mutation testers, adapters."""
