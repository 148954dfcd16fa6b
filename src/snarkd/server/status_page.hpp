// The HTML status page (status_page.cpp): self-contained, polls /status every second.
#pragma once

namespace snarkd::server {

const char* status_page_html();

}  // namespace snarkd::server
