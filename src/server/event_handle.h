// Owning handles for libevent objects. A handle frees its object (event_free, event_base_free)
// when it is reset or destroyed, so no path can leak or double-free an event. Only the .cc
// files that create events include libevent's headers; this header forward-declares its types.
//
// Destruction order matters: every event must be freed before its base. The Server declares
// its base first (destroyed last) and frees its clients (and their events) in its destructor.
#pragma once

#include <memory>

struct event;
struct event_base;

namespace redistp {

struct EventFree {
  void operator()(event* ev) const;
};
struct EventBaseFree {
  void operator()(event_base* base) const;
};

using EventPtr = std::unique_ptr<event, EventFree>;
using EventBasePtr = std::unique_ptr<event_base, EventBaseFree>;

}  // namespace redistp
