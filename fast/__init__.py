"""The optional compiled build's tooling (issue 20, "one fast path, one
source"): ``python -m fast.agree`` runs one corpus through the interpreted
and the compiled install and compares every output byte for byte
(docs/fast.md).  Not part of the ``verified`` package; nothing in it is
imported by it."""
