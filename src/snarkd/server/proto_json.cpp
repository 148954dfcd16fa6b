#include "snarkd/server/proto_json.hpp"

#include <google/protobuf/descriptor.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace snarkd::server {

namespace {

namespace gp = google::protobuf;

Json json_double(double v) {
  if (!std::isfinite(v)) return Json();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);  // 15 digits: unix times keep their milliseconds
  return Json::number_text(buf);
}

Json json_scalar(const gp::Message& m, const gp::Reflection* r, const gp::FieldDescriptor* f, int i) {
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_INT32:
      return Json::number_text(std::to_string(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f)));
    case gp::FieldDescriptor::CPPTYPE_INT64:
      return Json::number_text(std::to_string(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f)));
    case gp::FieldDescriptor::CPPTYPE_UINT32:
      return Json::number(rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f));
    case gp::FieldDescriptor::CPPTYPE_UINT64:
      return Json::number(rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f));
    case gp::FieldDescriptor::CPPTYPE_DOUBLE:
      return json_double(rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f));
    case gp::FieldDescriptor::CPPTYPE_FLOAT:
      return json_double(rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f));
    case gp::FieldDescriptor::CPPTYPE_BOOL:
      return Json::boolean(rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f));
    case gp::FieldDescriptor::CPPTYPE_ENUM: {
      const int v = rep ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f);
      const gp::EnumValueDescriptor* e = f->enum_type()->FindValueByNumber(v);
      return e ? Json::string(e->name()) : Json::number_text(std::to_string(v));
    }
    case gp::FieldDescriptor::CPPTYPE_STRING: {
      const std::string v = rep ? r->GetRepeatedString(m, f, i) : r->GetString(m, f);
      if (f->type() != gp::FieldDescriptor::TYPE_BYTES) return Json::string(v);
      static const char* kHex = "0123456789abcdef";
      std::string hex;
      for (unsigned char b : v) hex += kHex[b >> 4], hex += kHex[b & 15];
      return Json::string(hex);
    }
    case gp::FieldDescriptor::CPPTYPE_MESSAGE:
      return proto_to_json(rep ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f));
  }
  return Json();
}

}  // namespace

Json proto_to_json(const google::protobuf::Message& m) {
  const gp::Descriptor* d = m.GetDescriptor();
  const gp::Reflection* r = m.GetReflection();
  Json out = Json::object();
  for (int k = 0; k < d->field_count(); ++k) {
    const gp::FieldDescriptor* f = d->field(k);
    if (f->containing_oneof() && !r->HasField(m, f)) continue;  // unset oneof member or proto3 optional
    if (!f->is_repeated()) {
      out.set(f->name(), json_scalar(m, r, f, -1));
      continue;
    }
    Json a = Json::array();
    for (int i = 0; i < r->FieldSize(m, f); ++i) a.push_back(json_scalar(m, r, f, i));
    out.set(f->name(), std::move(a));
  }
  return out;
}

}  // namespace snarkd::server
