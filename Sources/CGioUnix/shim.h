#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
