"""Generated protobuf code for cardarena.v1 (do not edit)."""
