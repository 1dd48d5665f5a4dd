#include "cluster/fence_floor.h"

#include <string>

namespace redistp {

void SetFenceFloor(BusMessage* m, uint64_t floor) {
  m->module_id = kTpBusModuleId;
  m->module_type = kTpBusFenceFloor;
  m->module_payload.clear();
  for (int shift = 56; shift >= 0; shift -= 8) {
    m->module_payload.push_back(static_cast<char>((floor >> shift) & 0xff));
  }
}

void SetFenceFloorRequest(BusMessage* m) {
  m->module_id = kTpBusModuleId;
  m->module_type = kTpBusFenceFloorRequest;
  m->module_payload.clear();
}

bool IsTpBusMessage(const BusMessage& m) {
  return m.type() == BusType::kModule && m.module_id == kTpBusModuleId;
}

Result<FenceFloorMessage> ParseFenceFloor(const BusMessage& m) {
  if (!IsTpBusMessage(m)) return Status::Error("not a redis-tp module message");
  FenceFloorMessage out;
  if (m.module_type == kTpBusFenceFloorRequest) {
    if (!m.module_payload.empty()) return Status::Error("fence floor request with a payload");
    out.request = true;
    return out;
  }
  if (m.module_type != kTpBusFenceFloor) return Status::Error("unknown redis-tp message type");
  if (m.module_payload.size() != 8) return Status::Error("fence floor payload not 8 bytes");
  for (unsigned char c : m.module_payload) out.floor = (out.floor << 8) | c;
  return out;
}

}  // namespace redistp
