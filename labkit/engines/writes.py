"""How an engine performs a claim file's CRUD writes (``claims.spec.WRITES``): through a
pymongo collection, its answer the result object the CRUD specification names (mongodb/
specifications source/crud/crud.md at 92b3c0b9: InsertOneResult, InsertManyResult,
UpdateResult, DeleteResult, BulkWriteResult, and the document a findOneAnd… returns), or, on
the model, the inserts its rules can answer.

A write's argument labkit does not send (``rawData``, a write concern) is refused with
``NotSupported`` before anything is sent: the step is not run, never judged on what the
server does without it.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from labkit.claims.claim import short_json
from labkit.errors import NotSupported
from labkit.i18n import N_, Message
from labkit.model import bson_order

if TYPE_CHECKING:
    from labkit.model.bson_order import Document

# Each write's arguments as crud.md names them, and pymongo's keyword for each (the required
# first arguments, filter, update, replacement, document(s) and requests, are passed by
# position). The lists are pymongo 4's signatures of the same methods.
_KEYWORDS = {"upsert": "upsert", "arrayFilters": "array_filters", "collation": "collation",
             "hint": "hint", "let": "let", "comment": "comment", "sort": "sort",
             "bypassDocumentValidation": "bypass_document_validation",
             "projection": "projection", "ordered": "ordered",
             "returnDocument": "return_document"}
_UPDATE = {"upsert", "arrayFilters", "collation", "hint", "let", "comment",
           "bypassDocumentValidation"}
_FIND_AND = {"projection", "sort", "collation", "hint", "let", "comment"}
TAKES: dict[str, tuple[tuple[str, ...], set[str]]] = {
    "insertOne": (("document",), {"bypassDocumentValidation", "comment"}),
    "insertMany": (("documents",), {"ordered", "bypassDocumentValidation", "comment"}),
    "updateOne": (("filter", "update"), {*_UPDATE, "sort"}),
    "updateMany": (("filter", "update"), _UPDATE),
    "replaceOne": (("filter", "replacement"), {*_UPDATE - {"arrayFilters"}, "sort"}),
    "deleteOne": (("filter",), {"collation", "hint", "let", "comment"}),
    "deleteMany": (("filter",), {"collation", "hint", "let", "comment"}),
    "bulkWrite": (("requests",), {"ordered", "bypassDocumentValidation", "comment", "let"}),
    "findOneAndUpdate": (("filter", "update"), {*_FIND_AND, "upsert", "arrayFilters",
                                                "returnDocument", "bypassDocumentValidation"}),
    "findOneAndReplace": (("filter", "replacement"), {*_FIND_AND, "upsert", "returnDocument",
                                                      "bypassDocumentValidation"}),
    "findOneAndDelete": (("filter",), _FIND_AND)}
# A bulkWrite's requests (crud.md's WriteModels) and what each takes, as pymongo's classes do.
_REQUESTS: dict[str, tuple[tuple[str, ...], set[str]]] = {
    "insertOne": (("document",), set()),
    "updateOne": (("filter", "update"), {"upsert", "collation", "arrayFilters", "hint",
                                         "sort"}),
    "updateMany": (("filter", "update"), {"upsert", "collation", "arrayFilters", "hint"}),
    "replaceOne": (("filter", "replacement"), {"upsert", "collation", "hint", "sort"}),
    "deleteOne": (("filter",), {"collation", "hint"}),
    "deleteMany": (("filter",), {"collation", "hint"})}
# findOneAnd…'s options pymongo passes to findAndModify as written, by their command names.
_AS_COMMAND = {"collation": "collation", "bypassDocumentValidation": "bypassDocumentValidation"}


def _split(operation: str, arguments: dict[str, Any],
           takes: dict[str, tuple[tuple[str, ...], set[str]]]) -> tuple[list[Any], dict[str, Any]]:
    """The positional arguments and pymongo's keywords of one write; ``NotSupported`` names
    an argument labkit does not send."""
    required, optional = takes[operation]
    unknown = sorted(set(arguments) - set(required) - optional)
    if unknown:
        raise NotSupported(Message(N_("labkit does not send the {operation} option "
                                      "{option}"), operation=operation, option=unknown[0]))
    keywords = {_KEYWORDS[k]: v for k, v in arguments.items() if k not in required}
    if isinstance(keywords.get("sort"), dict):
        keywords["sort"] = list(keywords["sort"].items())
    return [copy.deepcopy(arguments[k]) for k in required], keywords


def pymongo_write(collection: Any, operation: str, arguments: dict[str, Any]) -> Any:
    """Perform one CRUD write through a pymongo collection; its answer is crud.md's result
    (``_result``) or, for a findOneAnd…, the document the server returned (or None)."""
    from pymongo import ReturnDocument

    positional, keywords = _split(operation, arguments, TAKES)
    if operation == "bulkWrite":
        return _bulk_result(collection.bulk_write([_request(r) for r in positional[0]],
                                                  **keywords))
    if operation.startswith("findOneAnd"):
        if "return_document" in keywords:
            keywords["return_document"] = {"Before": ReturnDocument.BEFORE, "After":
                                           ReturnDocument.AFTER}[keywords["return_document"]]
        for ours, command in _AS_COMMAND.items():
            if _KEYWORDS[ours] in keywords:
                keywords[command] = keywords.pop(_KEYWORDS[ours])
        method = {"findOneAndUpdate": collection.find_one_and_update,
                  "findOneAndReplace": collection.find_one_and_replace,
                  "findOneAndDelete": collection.find_one_and_delete}[operation]
        return method(*positional, **keywords)
    method = {"insertOne": collection.insert_one, "insertMany": collection.insert_many,
              "updateOne": collection.update_one, "updateMany": collection.update_many,
              "replaceOne": collection.replace_one, "deleteOne": collection.delete_one,
              "deleteMany": collection.delete_many}[operation]
    return _result(operation, method(*positional, **keywords))


def _request(request: Any) -> Any:
    """One of a bulkWrite's requests (``{updateOne: {filter, update, …}}``) as pymongo's
    write model."""
    import pymongo

    if not isinstance(request, dict) or len(request) != 1 or next(iter(request)) not in \
            _REQUESTS or not isinstance(next(iter(request.values())), dict):
        raise NotSupported(Message(N_("labkit does not send the bulkWrite request {request}"),
                                   request=str(next(iter(request), "?")
                                               if isinstance(request, dict) else request)))
    (name, arguments), = request.items()
    positional, keywords = _split(name, arguments, _REQUESTS)
    model = {"insertOne": pymongo.InsertOne, "updateOne": pymongo.UpdateOne,
             "updateMany": pymongo.UpdateMany, "replaceOne": pymongo.ReplaceOne,
             "deleteOne": pymongo.DeleteOne, "deleteMany": pymongo.DeleteMany}[name]
    return model(*positional, **keywords)


def _result(operation: str, result: Any) -> dict[str, Any]:
    """crud.md's result of an insert, update, replace or delete, from pymongo's. An update's
    counts are read from the server's reply (``n``, ``nModified``, ``upserted``), where an
    upsert counts in ``n`` and not in ``matchedCount``: pymongo's ``matched_count`` takes an
    upserted ``_id`` of null for no upsert."""
    if operation == "insertOne":
        return {"insertedId": result.inserted_id}
    if operation == "insertMany":
        return {"insertedIds": {str(i): _id for i, _id in enumerate(result.inserted_ids)}}
    if operation in ("deleteOne", "deleteMany"):
        return {"deletedCount": result.deleted_count}
    raw = result.raw_result
    upserted = "upserted" in raw
    out = {"matchedCount": int(raw.get("n", 0)) - int(upserted),
           "modifiedCount": int(raw.get("nModified", 0)), "upsertedCount": int(upserted)}
    if upserted:
        out["upsertedId"] = raw["upserted"]
    return out


def _bulk_result(result: Any) -> dict[str, Any]:
    """crud.md's BulkWriteResult from the counts the server's replies summed (pymongo's
    ``bulk_api_result``); ``insertedIds``, which crud.md makes optional, is left out."""
    raw = result.bulk_api_result
    return {"deletedCount": raw.get("nRemoved", 0), "insertedCount": raw.get("nInserted", 0),
            "matchedCount": raw.get("nMatched", 0), "modifiedCount": raw.get("nModified", 0),
            "upsertedCount": raw.get("nUpserted", 0),
            "upsertedIds": {str(u["index"]): u["_id"] for u in raw.get("upserted", [])}}


# The model's writes ------------------------------------------------------------------------

MODEL_WRITES = ("insertOne", "insertMany")  # the writes the model performs


def model_write(docs: list[Document], operation: str, arguments: dict[str, Any]) -> Any:
    """An insert on the model's collection ``docs`` (changed in place), its crud.md result.
    Where the server would refuse the document (a duplicate ``_id``, equal by BSON comparison
    as the unique ``_id`` index compares, 1 and 1.0 alike; an ``_id`` that is an array or a
    regular expression; a field named with ``$``), the model, which
    predicts results and not server errors, does not answer. An ``_id`` the document lacks is
    a new ObjectId put first, as the server stores it (the manual's "_id Field" page)."""
    from bson import ObjectId, Regex

    required, optional = ("documents",) if operation == "insertMany" else ("document",), \
        {"comment", "bypassDocumentValidation"} | ({"ordered"} if operation == "insertMany"
                                                    else set())
    unknown = sorted(set(arguments) - set(required) - optional)
    if unknown:
        raise NotSupported(Message(N_("the model does not support the {operation} option "
                                      "{option}"), operation=operation, option=unknown[0]))
    given = arguments["documents"] if operation == "insertMany" else [arguments["document"]]
    inserted: list[Document] = []
    for doc in given:
        if not isinstance(doc, dict) or any(str(k).startswith("$") for k in doc) or (
                "_id" in doc and isinstance(doc["_id"], list | Regex)):
            raise NotSupported(Message(N_("the model predicts results, not server errors: "
                                          "{operation} of a document the server may refuse"),
                                       operation=operation))
        doc = copy.deepcopy(doc) if "_id" in doc else {"_id": ObjectId(), **copy.deepcopy(doc)}
        if any(bson_order.compare(doc["_id"], other["_id"]) == 0
               for other in [*docs, *inserted] if "_id" in other):
            raise NotSupported(Message(N_(
                "the model predicts results, not server errors: MongoDB refuses a second "
                "document with _id {id} in {operation}, an _id being unique in its collection "
                "(a duplicate key error, E11000)"), operation=operation,
                id=short_json(doc["_id"], 80)))
        inserted.append(doc)
    docs.extend(inserted)
    if operation == "insertOne":
        return {"insertedId": inserted[0]["_id"]}
    return {"insertedIds": {str(i): doc["_id"] for i, doc in enumerate(inserted)}}
