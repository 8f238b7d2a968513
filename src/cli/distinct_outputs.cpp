// require_distinct_outputs (command.hpp): core's check, as a usage error.
#include "cli/command.hpp"
#include "core/output_paths.hpp"

namespace tok::cli {

void require_distinct_outputs(const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
  if (Status s = check_outputs(inputs, outputs); !s.ok()) throw UsageError{s.error().message};
}

}  // namespace tok::cli
