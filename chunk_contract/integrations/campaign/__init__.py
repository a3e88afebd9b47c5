"""Long fuzzing campaigns of the property tests with HypoFuzz (``chunk-contract campaign``).

- :mod:`chunk_contract.integrations.campaign.hypofuzz`: the property tests HypoFuzz runs.
- :mod:`chunk_contract.integrations.campaign.driver`: the command that starts and reads a campaign.
"""
