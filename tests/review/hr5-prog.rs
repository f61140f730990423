// hr5-prog.rs: Rust std::net under egress-supervisor (helper h-realprog5);
// std only (no crates registry here).
//   rustc -O -o /tmp/hr5-prog-rs tests/review/hr5-prog.rs
//   hr5-prog-rs ct ADDR:PORT           TcpStream::connect_timeout (a non-blocking connect and poll), echo
//   hr5-prog-rs udp ADDR:PORT N        UdpSocket bound to the family's any address, send_to N, recv the echoes
//   hr5-prog-rs udpc ADDR:PORT N       UdpSocket::connect, send N, recv
//   hr5-prog-rs dual V4ADDR:PORT N     a socket bound to [::]:0 (dual-stack), send_to the v4-mapped address
//   hr5-prog-rs srv                    a TcpListener of its own on 127.0.0.1:0 and 8 threads to it (loopback allowed)
// Exit 0 when the work was done.
use std::io::{Read, Write};
use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6, TcpListener, TcpStream, UdpSocket};
use std::time::Duration;

fn echo_udp(s: &UdpSocket, n: usize) -> usize {
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut b = [0u8; 128];
    let mut got = 0;
    while got < n {
        match s.recv_from(&mut b) {
            Ok(_) => got += 1,
            Err(_) => break,
        }
    }
    got
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(3).map(|x| x.parse().unwrap()).unwrap_or(1);
    let ok = match a[1].as_str() {
        "ct" => {
            let to: SocketAddr = a[2].parse().unwrap();
            match TcpStream::connect_timeout(&to, Duration::from_secs(3)) {
                Ok(mut s) => {
                    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
                    s.write_all(b"rust ct\n").unwrap();
                    let mut b = [0u8; 64];
                    let r = s.read(&mut b).unwrap_or(0);
                    println!("ct echo {}", r);
                    r == 8
                }
                Err(e) => {
                    println!("connect_timeout: {} ({:?})", e, e.raw_os_error());
                    false
                }
            }
        }
        "udp" | "udpc" | "dual" => {
            let to: SocketAddr = a[2].parse().unwrap();
            let (bind, dest) = match (a[1].as_str(), to) {
                ("dual", SocketAddr::V4(v4)) => (
                    "[::]:0".to_string(),
                    SocketAddr::V6(SocketAddrV6::new(v4.ip().to_ipv6_mapped(), v4.port(), 0, 0)),
                ),
                (_, SocketAddr::V4(_)) => ("0.0.0.0:0".to_string(), to),
                (_, SocketAddr::V6(_)) => ("[::]:0".to_string(), to),
            };
            let s = UdpSocket::bind(&bind).unwrap();
            let mut sent = 0;
            if a[1] == "udpc" {
                if let Err(e) = s.connect(dest) {
                    println!("connect: {}", e);
                }
            }
            for i in 0..n {
                let m = format!("rust {}", i);
                let r = if a[1] == "udpc" { s.send(m.as_bytes()) } else { s.send_to(m.as_bytes(), dest) };
                match r {
                    Ok(_) => sent += 1,
                    Err(e) => println!("send {}: {}", i, e),
                }
            }
            let got = echo_udp(&s, n);
            println!("udp sent {} echoes {} (to {} from {}; {})", sent, got, dest, bind, Ipv6Addr::UNSPECIFIED);
            sent == n && got == n
        }
        "srv" => {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            let h = std::thread::spawn(move || {
                for _ in 0..8 {
                    let (mut c, _) = l.accept().unwrap();
                    let mut b = [0u8; 64];
                    let r = c.read(&mut b).unwrap();
                    c.write_all(&b[..r]).unwrap();
                }
            });
            let ts: Vec<_> = (0..8)
                .map(|i| {
                    std::thread::spawn(move || {
                        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                        s.write_all(format!("t{}", i).as_bytes()).unwrap();
                        let mut b = [0u8; 64];
                        s.read(&mut b).unwrap() > 0
                    })
                })
                .collect();
            let ok = ts.into_iter().all(|t| t.join().unwrap_or(false));
            h.join().unwrap();
            println!("srv ok {}", ok);
            ok
        }
        _ => false,
    };
    std::process::exit(if ok { 0 } else { 1 });
}
