// libcurl, the curl project's URL transfer library (Debian's libcurl4-openssl-dev: TLS through the system's OpenSSL
// and trust store). curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed function
// per kind of argument does it here.
#include <curl/curl.h>

static inline CURLcode peerscan_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode peerscan_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode peerscan_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode peerscan_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*peerscan_curl_data_function)(char *data, size_t size, size_t count, void *context);
static inline CURLcode peerscan_curl_set_data_function(CURL *handle, CURLoption option,
                                                       peerscan_curl_data_function function) {
    return curl_easy_setopt(handle, option, function);
}

typedef int (*peerscan_curl_progress_function)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                               curl_off_t upload_total, curl_off_t uploaded);
static inline CURLcode peerscan_curl_set_progress_function(CURL *handle, peerscan_curl_progress_function function) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

static inline CURLcode peerscan_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
