#include "db/dict.h"

namespace redistp {

void Dict::Clear(const std::function<void(Entry*)>& on_remove) {
  table_.Clear([&](Entry* e) {
    if (on_remove) on_remove(e);
    Entry::Destroy(e);
  });
}

}  // namespace redistp
