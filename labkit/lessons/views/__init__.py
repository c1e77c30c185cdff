"""Each lesson's own names: what its notebook uses beside ``labkit``'s, one module per lesson,
named as its notebook (``from labkit.lessons.views import type_bracketing as lesson``).

With ``labkit`` itself, these modules are the notebooks' whole API (``docs/api.md``); every
other module of labkit is internal and may change without notice.
"""
