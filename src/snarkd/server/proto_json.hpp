// Proto messages as JSON for people and scripts: fields by their proto names (snake_case), every
// field written (defaults included, so the shape is fixed), enums by value name, 64-bit integers
// as JSON numbers (not strings, unlike the proto3 canonical mapping), bytes as hex, non-finite
// doubles as null. GET /status serves StatusReply this way (docs/STATUS_SCHEMA.json), and
// snarkctl --json prints every reply this way. Not protobuf's own JSON printer
// (util::MessageToJsonString): its proto3 canonical mapping writes 64-bit integers as strings
// and bytes as base64, which would change every consumer's types (job ids, byte counts).
#pragma once
#include <google/protobuf/message.h>

#include "snarkd/util/json.hpp"

namespace snarkd::server {

Json proto_to_json(const google::protobuf::Message& m);

}  // namespace snarkd::server
