//! The address guard: only globally reachable addresses are fetched (unless
//! [`HttpConfig::allow_private`](super::HttpConfig::allow_private)), and reqwest connects only
//! to addresses that passed the check (a pinning resolver), so that a URL taken from a page
//! cannot make templex probe the network it runs in, even through DNS rebinding.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Mutex;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Beyond this many hosts the per-host tables are pruned, so a long-running fetcher that
/// sees many hosts does not grow without bound.
pub(super) const MAX_TRACKED_HOSTS: usize = 4096;

/// Whether `ip` is a globally reachable unicast address, i.e. one templex may fetch from
/// without [`HttpConfig::allow_private`](super::HttpConfig::allow_private).
///
/// Refused: loopback, unspecified, private (RFC 1918, IPv6 ULA), shared (CGNAT), link-local,
/// multicast, broadcast, reserved, benchmarking and documentation ranges. IPv6 addresses that
/// embed an IPv4 address (mapped, NAT64, 6to4) are judged by the embedded address.
pub(crate) fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_ipv4(v4),
        IpAddr::V6(v6) => is_public_ipv6(v6),
    }
}

fn is_public_ipv4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224; // multicast, reserved, broadcast
    !refused
}

fn is_public_ipv6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_ipv4(v4);
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    // NAT64 (RFC 6052): IPv6-only networks reach IPv4 hosts this way, so judge the target.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4] {
        return is_public_ipv4(embedded(s[6], s[7]));
    }
    // Only global unicast (2000::/3) is public; this excludes ::, ::1, IPv4-compatible,
    // discard, ULA, link-local, site-local and multicast in one test.
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    if s[0] == 0x2002 {
        // 6to4 tunnels to the embedded IPv4 address.
        return is_public_ipv4(embedded(s[1], s[2]));
    }
    let documentation = (s[0] == 0x2001 && s[1] == 0x0db8) || (s[0] == 0x3fff && s[1] < 0x1000);
    !documentation
}

/// A DNS resolver for reqwest that only hands out addresses the fetcher has checked.
///
/// Names are resolved and vetted by [`HttpFetcher`](super::HttpFetcher) before each request
/// and pinned here; reqwest then connects to exactly those addresses. A name that was never
/// pinned fails to resolve, so nothing can bypass the check.
#[derive(Debug, Default)]
pub(super) struct PinnedResolver {
    pins: Mutex<HashMap<String, Vec<SocketAddr>>>,
}

impl PinnedResolver {
    pub(super) fn pin(&self, host: &str, addrs: Vec<SocketAddr>) {
        let mut pins = self.pins.lock().unwrap_or_else(|e| e.into_inner());
        if pins.len() >= MAX_TRACKED_HOSTS && !pins.contains_key(host) {
            // A concurrent fetch whose pin is dropped here fails to resolve: safe, and rare.
            pins.clear();
        }
        pins.insert(host.to_ascii_lowercase(), addrs);
    }
}

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let addrs = (self.pins.lock().unwrap_or_else(|e| e.into_inner()))
            .get(&name.as_str().to_ascii_lowercase())
            .cloned();
        Box::pin(async move {
            match addrs {
                Some(addrs) => Ok(Box::new(addrs.into_iter()) as Addrs),
                None => Err("host was not resolved and checked before connecting".into()),
            }
        })
    }
}
