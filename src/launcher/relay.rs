//! Plain TCP relays on node 0 of an allocation made from the login node: Backend.AI's
//! tunnel reaches only the session's main container, so each other node's step server is
//! reached through a port of node 0 that relays to it (the bytes are the step protocol's,
//! authenticated end to end by srun and that server).

use std::net::{Shutdown, TcpListener, TcpStream};

/// Listens on `listen` and carries every connection to `to`, until the process ends.
pub fn start(listen: &str, to: String) -> std::io::Result<()> {
    let listener = TcpListener::bind(listen)?;
    std::thread::Builder::new()
        .name("relay".into())
        .spawn(move || {
            for conn in listener.incoming().flatten() {
                let to = to.clone();
                let _ = std::thread::Builder::new()
                    .name("relay-conn".into())
                    .spawn(move || {
                        if let Ok(remote) = TcpStream::connect(&to) {
                            splice(conn, remote);
                        }
                    });
            }
        })?;
    Ok(())
}

/// Copies both ways until either side ends, then closes both.
fn splice(a: TcpStream, b: TcpStream) {
    let (Ok(mut a_in), Ok(mut b_in)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    let (mut a_out, mut b_out) = (a, b);
    let _ = a_out.set_nodelay(true);
    let _ = b_out.set_nodelay(true);
    let back = std::thread::spawn(move || {
        let _ = std::io::copy(&mut b_in, &mut a_out);
        let _ = a_out.shutdown(Shutdown::Both);
    });
    let _ = std::io::copy(&mut a_in, &mut b_out);
    let _ = b_out.shutdown(Shutdown::Both);
    let _ = back.join();
}
