"""MongoDB's comparison rules as a library: BSON order, filters, $expr, reads, ObjectId and UUID
anatomy, fixtures. Imports nothing of labkit but errors.
"""
