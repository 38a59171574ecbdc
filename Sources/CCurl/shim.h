// libcurl, the curl project's URL transfer library (Debian's libcurl4-openssl-dev: TLS through the system's OpenSSL
// and trust store), for its types and constants: its functions are called through the pointers dlsym gives
// (HTTPRequests' CurlLibrary loads libcurl.so.4 when the first request is sent), so nothing here names one and the
// executable does not link libcurl. curl_global_init's flag is a macro, and curl_easy_setopt and curl_easy_getinfo
// are variadic, which Swift cannot call: one typed function per kind of argument calls them here.
#include <curl/curl.h>

typedef CURLcode (*peerscan_curl_global_init_function)(long flags);
typedef CURLcode (*peerscan_curl_setopt_function)(CURL *handle, CURLoption option, ...);
typedef CURLcode (*peerscan_curl_getinfo_function)(CURL *handle, CURLINFO info, ...);

static inline CURLcode peerscan_curl_global_init(void *global_init) {
    return ((peerscan_curl_global_init_function)global_init)(CURL_GLOBAL_DEFAULT);
}

static inline CURLcode peerscan_curl_set_long(void *setopt, CURL *handle, CURLoption option, long value) {
    return ((peerscan_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode peerscan_curl_set_size(void *setopt, CURL *handle, CURLoption option, curl_off_t value) {
    return ((peerscan_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode peerscan_curl_set_pointer(void *setopt, CURL *handle, CURLoption option, const void *value) {
    return ((peerscan_curl_setopt_function)setopt)(handle, option, value);
}

typedef size_t (*peerscan_curl_data_function)(char *data, size_t size, size_t count, void *context);
static inline CURLcode peerscan_curl_set_data_function(void *setopt, CURL *handle, CURLoption option,
                                                       peerscan_curl_data_function function) {
    return ((peerscan_curl_setopt_function)setopt)(handle, option, function);
}

typedef int (*peerscan_curl_progress_function)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                               curl_off_t upload_total, curl_off_t uploaded);
static inline CURLcode peerscan_curl_set_progress_function(void *setopt, CURL *handle,
                                                           peerscan_curl_progress_function function) {
    return ((peerscan_curl_setopt_function)setopt)(handle, CURLOPT_XFERINFOFUNCTION, function);
}

static inline CURLcode peerscan_curl_response_code(void *getinfo, CURL *handle, long *code) {
    return ((peerscan_curl_getinfo_function)getinfo)(handle, CURLINFO_RESPONSE_CODE, code);
}
