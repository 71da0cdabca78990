#include "etcd_client.hpp"

#include <curl/curl.h>
#include <sodium.h>

#include <mutex>

#include "idforge/coord/lease.hpp"
#include "store_support.hpp"

namespace idforge::coord::detail {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (sodium_init() < 0) throw Error(errc::invalid_argument, "libsodium failed to initialise");
  });
}

// gRPC status codes the gateway passes through that mean "try another member". A member that
// is stopping answers "the client connection is closing" (Canceled, HTTP 408) or "transport is
// closing": its own gRPC connection is going, not the request's fault.
bool retryable(int grpc_code, const std::string& message) {
  return grpc_code == 14 /* Unavailable */ || grpc_code == 4 /* DeadlineExceeded */ ||
         grpc_code == 1 /* Canceled */ ||
         message.find("connection is closing") != std::string::npos ||
         message.find("transport is closing") != std::string::npos ||
         message.find("no leader") != std::string::npos ||
         message.find("leader changed") != std::string::npos ||
         message.find("timed out") != std::string::npos;
}

}  // namespace

EtcdClient::EtcdClient(std::vector<Endpoint> endpoints, std::int64_t timeout_ms,
                       std::string store_url)
    : endpoints_(std::move(endpoints)), timeout_ms_(timeout_ms), store_url_(std::move(store_url)) {
  global_init();
  curl_ = curl_easy_init();
  if (!curl_) throw LeaseError(LeaseFailure::rejected, store_url_, "curl_easy_init failed");
}

EtcdClient::~EtcdClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

std::string EtcdClient::current() const {
  return endpoints_[current_].host + ":" + std::to_string(endpoints_[current_].port);
}

bool EtcdClient::attempt(std::size_t member, const std::string& path, const std::string& body,
                         nlohmann::json& out, std::string& why) {
  CURL* c = static_cast<CURL*>(curl_);
  const Endpoint& ep = endpoints_[member];
  const std::string url = "http://" + ep.host + ":" + std::to_string(ep.port) + path;
  std::string response;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a multithreaded process
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms_));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(connect_timeout_ms(timeout_ms_)));
  const CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  const std::string where = ep.host + ":" + std::to_string(ep.port);
  if (rc != CURLE_OK) {
    why = where + ": " + curl_easy_strerror(rc);
    return false;
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  // keepalive streams one JSON object per line; the first is the answer.
  out = nlohmann::json::parse(response.substr(0, response.find('\n')), nullptr, false);
  if (out.is_discarded() || !out.is_object()) {
    why = where + ": HTTP " + std::to_string(status) +
          " with a body that is not JSON: " + response.substr(0, 200);
    if (status >= 500 || status == 0) return false;
    throw LeaseError(LeaseFailure::rejected, store_url_, "etcd at " + why);
  }
  // A streaming call (keepalive) wraps its answer in "result" and an error in an "error"
  // object; a unary call puts code and message (or error text) at the top.
  if (out.contains("result") && out["result"].is_object()) out = out["result"];
  const nlohmann::json err = out.contains("error") && out["error"].is_object() ? out["error"] : out;
  if (out.contains("error") || status != 200) {
    std::string message = "HTTP " + std::to_string(status);
    if (err.contains("message") && err["message"].is_string())
      message = err["message"].get<std::string>();
    else if (err.contains("error") && err["error"].is_string())
      message = err["error"].get<std::string>();
    int code = 0;
    for (const char* k : {"code", "grpc_code"})
      if (err.contains(k) && err[k].is_number_integer()) code = err[k].get<int>();
    why = where + ": " + message;
    if (retryable(code, message) || status >= 500) return false;
    throw LeaseError(LeaseFailure::rejected, store_url_, "etcd at " + why);
  }
  return true;
}

nlohmann::json EtcdClient::call(const std::string& path, const nlohmann::json& body) {
  const std::string text = body.dump();
  std::string failures;
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    const std::size_t member = (current_ + i) % endpoints_.size();
    nlohmann::json out;
    std::string why;
    if (attempt(member, path, text, out, why)) {
      current_ = member;
      return out;
    }
    failures += (failures.empty() ? "" : "; ") + why;
  }
  current_ = (current_ + 1) % endpoints_.size();
  throw LeaseError(LeaseFailure::unreachable, store_url_,
                   "no etcd member answered " + path + " within " + std::to_string(timeout_ms_) +
                       " ms each (" + failures + ")");
}

std::string EtcdClient::encode64(std::string_view bytes) {
  global_init();
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::string EtcdClient::decode64(std::string_view text) const {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0)
    throw LeaseError(LeaseFailure::rejected, store_url_,
                     "etcd sent invalid base64: " + std::string(text.substr(0, 80)));
  out.resize(len);
  return out;
}

std::int64_t EtcdClient::int_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return 0;
  const auto& v = j[key];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) return std::stoll(v.get<std::string>());
  return 0;
}

}  // namespace idforge::coord::detail
