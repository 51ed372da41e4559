"""The commands of ``ccweb-conformance``, one module each."""
