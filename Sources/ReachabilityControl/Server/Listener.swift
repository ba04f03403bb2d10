import NIOCore
import NIOHTTP1
import NIOPosix

/// A listening socket handed to NIO, with the address it is bound to and, for a Unix socket,
/// the file to remove when the server stops.
struct Listener {
    let channel: NIOAsyncChannel<AcceptedConnection?, Never>
    let address: ControlServer.Address
    let socketFile: UnixSocketFile?

    static func open(
        _ address: ControlServer.Address, limits: ControlServer.Limits, access: SocketAccess, registry: ConnectionRegistry
    ) async throws -> Listener {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        switch address.kind {
        case .unix(let path):
            let socketAddress = try UnixSocketAddress(path)
            try SocketDirectory.prepare(socketAddress.directory, mode: access.directoryMode)
            try SocketPathOccupant.clear(socketAddress)
            let bound = try BoundUnixSocket.bind(socketAddress, mode: access.socketMode)
            do {
                // NIO owns the descriptor from here and listens on it.
                let channel = try await bootstrap.bind(bound.descriptor) { channel in
                    AcceptedConnection.initialize(channel, limits: limits, registry: registry, readsCredentials: true)
                }
                return Listener(channel: channel, address: address, socketFile: bound.file)
            } catch {
                bound.file.removeIfUnchanged()
                throw ControlServerError(.systemCall, path: path, "cannot listen on \(path): \(error)")
            }
        case .tcp(let host, let port):
            do {
                let channel = try await bootstrap.serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: host, port: port) { channel in
                        AcceptedConnection.initialize(channel, limits: limits, registry: registry, readsCredentials: false)
                    }
                let bound = ControlServer.Address.tcp(host: host, port: channel.channel.localAddress?.port ?? port)
                return Listener(channel: channel, address: bound, socketFile: nil)
            } catch {
                throw ControlServerError(.systemCall, path: address.description, "cannot listen on \(address): \(error)")
            }
        }
    }
}
