extension PortalServers {
    /// nginx's configuration: single process in the foreground, everything under `directory`.
    ///
    /// - 10.9.0.1:80: `/generate_204` (204), `/portal-302` (302 to the login page),
    ///   `/portal-200` (a page with a meta refresh to it), `/portal-511` (511 with a link to it),
    ///   `/ok-200` (an empty 200), `/file` (``PortalNetwork/fileContents``), anything else 404.
    /// - 10.9.0.1:443 (TLS, `probe.test` and 10.9.0.1): `/generate_204` (204), else 404.
    /// - 10.9.0.2:80: `/login` (200, the portal's page), every other path 302 to it.
    /// - 10.9.0.2:8908: `/capport` (RFC 8908: captive) and `/capport-open` (not captive).
    static func nginxConfiguration(directory: String, tls: String) -> String {
        let login = PortalNetwork.portalLoginURL
        let temp = directory + "/tmp"
        return """
            daemon off; master_process off; worker_processes 1; pid \(directory)/nginx.pid;
            error_log \(directory)/error.log;
            events { worker_connections 256; }
            http {
              log_format probes '$server_addr:$server_port $remote_addr "$request" $status';
              access_log \(directory)/access.log probes;
              client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
              uwsgi_temp_path \(temp); scgi_temp_path \(temp);
              default_type text/html;
              server {
                listen \(PortalNetwork.internetAddress):80;
                root \(directory)/www;
                location = /generate_204 { return 204; }
                location = /ok-200 { return 200 ''; }
                location = /portal-302 { return 302 \(login); }
                location = /portal-200 {
                  return 200 '<html><head><meta http-equiv="refresh" content="0; url=\(login)"></head><body>Log in</body></html>';
                }
                location = /portal-511 {
                  return 511 '<html><body>Network authentication required: <a href="\(login)">log in</a></body></html>';
                }
                location = /file { default_type application/octet-stream; }
              }
              server {
                listen \(PortalNetwork.internetAddress):443 ssl;
                ssl_certificate \(tls)/server.pem; ssl_certificate_key \(tls)/server.key;
                location = /generate_204 { return 204; }
                location / { return 404; }
              }
              server {
                listen \(PortalNetwork.portalAddress):80;
                location = /login { return 200 '<html><body><form>Portal login</form></body></html>'; }
                location / { return 302 \(login); }
              }
              server {
                listen \(PortalNetwork.portalAddress):\(PortalNetwork.apiPort);
                default_type application/captive+json;
                location = /capport { return 200 '{"captive": true, "user-portal-url": "\(login)"}'; }
                location = /capport-open { return 200 '{"captive": false}'; }
              }
            }

            """
    }
}
