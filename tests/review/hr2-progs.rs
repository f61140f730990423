// Rust std only (review h-realprog2): TcpStream / UdpSocket echo round trip.
// hr2-progs tcp|udp HOST PORT   (HOST may be a name: std resolves with getaddrinfo)
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};
use std::time::Duration;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let target = format!("{}:{}", a[2], a[3]);
    let ok = match a[1].as_str() {
        "tcp" => {
            let mut s = TcpStream::connect(&target).expect("connect");
            s.write_all(b"SECRET").expect("write");
            let mut b = [0u8; 6];
            s.read_exact(&mut b).expect("read");
            &b == b"SECRET"
        }
        _ => {
            let dest = target.to_socket_addrs().expect("resolve").next().expect("no address");
            let bind = if dest.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
            let s = UdpSocket::bind(bind).expect("bind");
            s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
            s.send_to(b"SECRET", dest).expect("send_to");
            let mut b = [0u8; 16];
            let (n, _) = s.recv_from(&mut b).expect("recv_from");
            &b[..n] == b"SECRET"
        }
    };
    std::process::exit(if ok { 0 } else { 1 });
}
