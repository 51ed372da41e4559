"""Files shipped for the exported cases' users: the Node harness (``contract-cases.js``) and the guide
(``CASES.md``, ``CASES.zh-CN.md``). ``ccweb-conformance export --output FILE`` writes the harness beside
FILE; ``export --help`` names where the installed guide lies. No code: data found with importlib.resources.
"""
