"""MongoDB's comparison rules as a library: BSON order (``bson_order``), filters (``match``),
``$expr`` (``expr``), conversions (``convert``), what a read returns (``reads``), the rule sets
per version (``versions``), ObjectId and UUID anatomy, B-tree key streams, fixtures. Imports
nothing of labkit but ``errors`` (and ``_paths``, where the fixtures' data folder is).
"""
