#include "server/event_handle.h"

#include <event2/event.h>

namespace redistp {

void EventFree::operator()(event* ev) const { event_free(ev); }
void EventBaseFree::operator()(event_base* base) const { event_base_free(base); }

}  // namespace redistp
