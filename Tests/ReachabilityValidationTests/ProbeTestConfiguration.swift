/// The texts the test servers run: nginx's configuration and the Python helpers.
enum ProbeTestConfiguration {
    /// The portal's login page every portal answer points at.
    static let loginURL = "http://10.77.0.1:8081/login"

    /// nginx on 10.77.0.1 (and fd00:77::1 on port 80): port 80 answers as a clear network (`/generate_204`) and as portals
    /// do (a redirect, 511, a page with a meta refresh), plus RFC 8908 JSON and a 1 MiB body;
    /// 8081 is the login page; 8443 is TLS with the test CA's certificate, 8444 with an
    /// untrusted one.
    static func nginx(base: String) -> String {
        let temp = base + "/tmp"
        let captive = #"{"captive": true, "user-portal-url": "https://10.77.0.1:8443/portal"}"#
        return #"""
            daemon off; master_process off; worker_processes 1; pid \#(base)/nginx.pid; error_log \#(base)/error.log;
            events { worker_connections 64; }
            http {
              access_log off;
              client_body_temp_path \#(temp); proxy_temp_path \#(temp); fastcgi_temp_path \#(temp); uwsgi_temp_path \#(temp); scgi_temp_path \#(temp);
              server {
                listen 10.77.0.1:80; listen [fd00:77::1]:80;
                location = /generate_204 { return 204; }
                location = /redirect { return 302 \#(loginURL); }
                location = /auth { return 511; }
                location = /page { default_type text/html;
                  return 200 '<html><head><meta http-equiv="refresh" content="0; url=\#(loginURL)"></head><body>Sign in</body></html>'; }
                location = /big { root \#(base)/www; default_type text/html; }
                location = /api-captive { default_type application/captive+json; return 200 '\#(captive)'; }
                location = /api-open { default_type application/captive+json; return 200 '{"captive": false}'; }
                location = /api-html { default_type text/html; return 200 '<html>not json</html>'; }
                location = /api-missing { return 404; }
              }
              server { listen 10.77.0.1:8081; location / { default_type text/html; return 200 'login'; } }
              server {
                listen 10.77.0.1:8443 ssl; ssl_certificate \#(base)/trusted.pem; ssl_certificate_key \#(base)/trusted.key;
                location = /generate_204 { return 204; }
                location = /api-captive { default_type application/captive+json; return 200 '\#(captive)'; }
              }
              server {
                listen 10.77.0.1:8444 ssl; ssl_certificate \#(base)/untrusted.pem; ssl_certificate_key \#(base)/untrusted.key;
                location / { return 204; }
              }
            }
            """#
    }

    /// 9001 accepts and never answers (a stalled server); 9002 answers with a line that is not
    /// HTTP and closes.
    static let python = """
        import socket, threading

        def listen(port):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("10.77.0.1", port))
            s.listen(16)
            return s

        def stall(s):
            held = []
            while True:
                held.append(s.accept()[0])

        def garbage(s):
            while True:
                c = s.accept()[0]
                try:
                    c.recv(4096)
                    c.sendall(b"SSH-2.0-OpenSSH_9.6 not http at all\\r\\n\\r\\n")
                except OSError:
                    pass
                c.close()

        stalled, wrong = listen(9001), listen(9002)
        threading.Thread(target=garbage, args=(wrong,), daemon=True).start()
        stall(stalled)
        """
}
