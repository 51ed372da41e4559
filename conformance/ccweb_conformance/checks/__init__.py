"""How the runner judges: replies read as the contract allows, exact comparison, the oracle, the audit."""
