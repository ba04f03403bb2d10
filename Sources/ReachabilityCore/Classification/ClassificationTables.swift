/// The data behind the classifier: kernel values and names mapped to types.
///
/// Sources: NetworkManager's `_linktype_get_type()` and `link_descs`, systemd's
/// `link_get_type_string()`, the Linux drivers named below, and systemd's predictable
/// interface-name prefixes. See `../shared/docs/anchors.md` §2.
public enum ClassificationTables {
    /// rtnl link kinds (`IFLA_INFO_KIND`).
    public static let kinds: [String: InterfaceType] = [
        // Cellular: the Linux WWAN framework (mhi, iosm, t7xx) and Qualcomm rmnet.
        "wwan": .cellular, "rmnet": .cellular,
        // Overlays whose traffic travels over an underlay.
        "wireguard": .tunnel, "tun": .tunnel, "gre": .tunnel, "gretap": .tunnel, "ip6gre": .tunnel,
        "ip6gretap": .tunnel, "ipip": .tunnel, "sit": .tunnel, "ip6tnl": .tunnel, "vti": .tunnel,
        "vti6": .tunnel, "xfrm": .tunnel, "erspan": .tunnel, "ip6erspan": .tunnel, "openvpn": .tunnel,
        // Software links with no transport of their own.
        "veth": .virtual, "bridge": .virtual, "bond": .virtual, "team": .virtual, "vlan": .virtual,
        "macvlan": .virtual, "macvtap": .virtual, "ipvlan": .virtual, "ipvtap": .virtual, "vxlan": .virtual,
        "geneve": .virtual, "dummy": .virtual, "vrf": .virtual, "ifb": .virtual, "nlmon": .virtual,
        "netkit": .virtual, "bareudp": .virtual, "macsec": .virtual, "hsr": .virtual, "batadv": .virtual,
        "vcan": .other, "vxcan": .other,
        // PPP: dial-up modems; PPPoE also uses it, which only a rule can tell apart today.
        "ppp": .cellular,
    ]

    /// Kinds stacked on one lower device (`IFLA_LINK`): they carry that device's traffic.
    public static let stackedKinds: Set<String> = ["vlan", "macvlan", "macvtap", "ipvlan", "ipvtap", "macsec"]

    /// `ARPHRD_*` values that decide on their own.
    public static let hardwareTypes: [UInt16: (InterfaceType, String)] = [
        772: (.loopback, "ARPHRD_LOOPBACK"),
        512: (.cellular, "ARPHRD_PPP: a dial-up modem link (PPPoE also uses it)"),
        519: (.cellular, "ARPHRD_RAWIP: rmnet, IPA, MHI modems"),
        530: (.cellular, "ARPHRD_RAWIP (out-of-tree value)"),
        768: (.tunnel, "ARPHRD_TUNNEL: ipip"),
        769: (.tunnel, "ARPHRD_TUNNEL6: ip6tnl"),
        776: (.tunnel, "ARPHRD_SIT"),
        778: (.tunnel, "ARPHRD_IPGRE"),
        823: (.tunnel, "ARPHRD_IP6GRE"),
        801: (.wifi, "ARPHRD_IEEE80211"),
        802: (.wifi, "ARPHRD_IEEE80211_PRISM"),
        803: (.wifi, "ARPHRD_IEEE80211_RADIOTAP: a monitor-mode Wi-Fi interface"),
        32: (.wired, "ARPHRD_INFINIBAND"),
        280: (.other, "ARPHRD_CAN"),
        804: (.other, "ARPHRD_IEEE802154"),
        825: (.other, "ARPHRD_6LOWPAN"),
    ]

    /// Names of `ARPHRD_*` values that do not decide, for evidence.
    public static let hardwareTypeNames: [UInt16: String] = [
        1: "ARPHRD_ETHER", 0xFFFE: "ARPHRD_NONE",
    ]

    /// `DEVTYPE=` values from `uevent`, set by drivers through `SET_NETDEV_DEVTYPE`.
    public static let deviceTypes: [String: InterfaceType] = [
        "wlan": .wifi, "wwan": .cellular, "bluetooth": .bluetooth, "gadget": .wired, "dsa": .wired,
        "bridge": .virtual, "bond": .virtual, "vlan": .virtual, "team": .virtual, "macsec": .virtual,
        "vxlan": .virtual, "wireguard": .tunnel, "l2tp": .tunnel, "ppp": .cellular,
    ]

    /// Kernel drivers (`device/driver`) that identify the transport.
    public static let drivers: [String: InterfaceType] = [
        // usbnet drivers flagged FLAG_WWAN, and other modem drivers.
        "qmi_wwan": .cellular, "cdc_mbim": .cellular, "huawei_cdc_ncm": .cellular, "sierra_net": .cellular,
        "hso": .cellular, "mhi_net": .cellular, "mhi_wwan_mbim": .cellular, "ipa": .cellular,
        "iosm": .cellular, "mtk_t7xx": .cellular, "ccmni": .cellular, "gobi": .cellular, "GobiNet": .cellular,
        "qmi_wwan_q": .cellular, "cdc_ncm_wwan": .cellular, "option": .cellular,
        // USB phone tethering (iPhone).
        "ipheth": .wired,
        // Bluetooth PAN.
        "bnep": .bluetooth,
    ]

    /// Drivers whose interface is a phone tethering its mobile data: expensive whatever the type.
    public static let tetheringDrivers: Set<String> = ["ipheth"]

    /// Interface-name prefixes, the last resort (names are policy and can be anything).
    public static let namePrefixes: [(prefix: String, type: InterfaceType)] = [
        ("wlan", .wifi), ("wlp", .wifi), ("wlx", .wifi), ("wl", .wifi), ("ath", .wifi),
        ("wwan", .cellular), ("wwp", .cellular), ("ww", .cellular), ("rmnet", .cellular), ("rev_rmnet", .cellular),
        ("ccmni", .cellular), ("ppp", .cellular),
        ("tun", .tunnel), ("tap", .tunnel), ("wg", .tunnel), ("tailscale", .tunnel), ("zt", .tunnel),
        ("wt", .tunnel), ("utun", .tunnel), ("ipsec", .tunnel), ("vpn", .tunnel), ("nordlynx", .tunnel),
        ("docker", .virtual), ("br-", .virtual), ("virbr", .virtual), ("veth", .virtual), ("vmnet", .virtual),
        ("vboxnet", .virtual), ("cni", .virtual), ("flannel", .virtual), ("cali", .virtual), ("lxcbr", .virtual),
        ("lxdbr", .virtual), ("br", .virtual), ("bond", .virtual), ("dummy", .virtual),
        ("bnep", .bluetooth), ("bt-pan", .bluetooth),
        ("eth", .wired), ("en", .wired), ("em", .wired), ("ib", .wired),
        ("lo", .loopback),
    ]
}
