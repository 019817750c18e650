#ifndef PIPE_CCURL_SHIM_H
#define PIPE_CCURL_SHIM_H
#include <curl/curl.h>

/// `curl_easy_setopt` and `curl_easy_getinfo` are variadic and so not callable from Swift: one wrapper per type of
/// value Pipe passes.
static inline CURLcode pipe_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pipe_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pipe_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pipe_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
/// What curl calls with each piece of the response body.
typedef size_t (*pipe_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode pipe_curl_set_write_callback(CURL *handle, pipe_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
/// What curl calls with each line of the response head (the same shape as the body's callback).
static inline CURLcode pipe_curl_set_header_callback(CURL *handle, pipe_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode pipe_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
