// Argument rules shared by every SegmentStore, so each backend words its errors the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include "idforge/ticket/ticket_errc.hpp"

namespace idforge::ticket::detail {

/// errc::invalid_argument unless step is 1..kMaxSegmentStep and start is >= 0.
void check_segment_args(std::string_view name, std::int64_t start, std::int64_t step);
/// errc::invalid_argument unless count is 0 (the stored step) or 1..kMaxSegmentStep.
void check_take_count(std::string_view name, std::int64_t count);
/// Throws ticket_errc::not_found: the sequence does not exist in the store.
[[noreturn]] void throw_missing(std::string_view name, const std::string& store);
/// A fresh store ID: 16 bytes from core's CSPRNG as 32 lowercase hex digits.
std::string new_store_id();
/// Throws StoreReplaced: store (describe()) is not the one opened with store ID `opened`;
/// what says what happened to it.
[[noreturn]] void throw_replaced(const std::string& store, const std::string& opened,
                                 const std::string& what);

}  // namespace idforge::ticket::detail
