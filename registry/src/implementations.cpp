#include "samebits/registry/implementations.hpp"

#include "personalities.hpp"

namespace samebits::registry {

const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> v = [] {
    std::vector<Implementation> all;
    detail::add_host(all);
    detail::add_nvcc(all);
    detail::add_hipcc(all);
    return all;
  }();
  return v;
}

const Implementation* find_implementation(std::string_view name) {
  for (const auto& i : implementations())
    if (i.name == name) return &i;
  return nullptr;
}

}  // namespace samebits::registry
