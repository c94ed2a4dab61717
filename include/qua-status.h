/* qua-status.h -- the status codes of libqua, the protocol, libquaclient and qua: one table, no library.
 *
 * A public header with no dependencies: qua.h (libqua), quaclient.h
 * (libquaclient, installed beside it as <qua/qua-status.h>) and the framing
 * code (proto/) all include it, so they share the table and its words
 * without linking one another. QUA_STATUS_MAP lists every status once: its
 * name, its number (the code is the negative) and its message. The enum,
 * qua_status_message() and qua_status_name() here, libqua's qua_strerror()/
 * qua_err_name(), libquaclient's quac_strerror()/quac_err_name(), the
 * protocol's Frame.status and the Python client's table are all made from
 * it.
 */
#ifndef QUA_STATUS_H
#define QUA_STATUS_H

#define QUA_STATUS_MAP(XX)                                                     \
  XX(EINVAL, 1, "invalid argument")                                           \
  XX(ENOMEM, 2, "out of memory")                                              \
  XX(ENOTYPE, 3, "no such quaject type")                                      \
  XX(ENOPARAM, 4, "no such parameter")                                        \
  XX(ERANGE, 5, "parameter value out of range")                               \
  XX(EBADVALUE, 6, "bad parameter value")                                      \
  XX(ENOENTRY, 7, "no such callentry")                                        \
  XX(ENOCALLOUT, 8, "no such callout")                                        \
  XX(ENOCALLBACK, 9, "no such callback")                                      \
  XX(EARITY, 10, "callout and callentry differ in arity")                     \
  XX(EWIRED, 11, "callout is already wired")                                  \
  XX(ENOTWIRED, 12, "callout is not wired")                                   \
  XX(EBUSY, 13, "quaject is in use: others are wired to it")                  \
  XX(ECLOSED, 14, "queue is closed")                                          \
  XX(ESELF, 15, "a quaject cannot be wired to itself")                        \
  XX(ELIMIT, 16, "limit reached")                                             \
  XX(EDIVERTED, 17, "the call ended in a callback")                           \
  XX(ETHREAD, 18, "cannot start thread")                                      \
  XX(ESTATE, 19, "operation not valid in this state")                         \
  /* The protocol's statuses (proto/README.md), same table. */                \
  XX(EPROTO, 20, "malformed message")                                         \
  XX(ENOMETHOD, 21, "no such method")                                         \
  XX(EHANDLE, 22, "no such handle on this connection")                        \
  XX(EAUTH, 23, "authentication failed")                                      \
  XX(ETOOBIG, 24, "frame too large")                                          \
  XX(ENOTFOUND, 25, "no such published name")                                 \
  XX(EEXIST, 26, "name already published")                                    \
  XX(EVERSION, 27, "unsupported protocol version")                            \
  XX(ESHUTDOWN, 28, "daemon is shutting down")                                \
  XX(ECONN, 29, "no connection to the daemon")                                \
  XX(ETIMEDOUT, 30, "timed out")                                               \
  XX(EPERM, 31, "not permitted")

typedef enum qua_status {
  QUA_OK = 0,
#define QUA__ERR_ENUM(name, num, msg) QUA_##name = -(num),
  QUA_STATUS_MAP(QUA__ERR_ENUM)
#undef QUA__ERR_ENUM
} qua_status_t;

/* A callentry returns QUA_OK, a negative error, or QUA_DIVERTED (1) when
 * the call ended in a callback instead of a result: a put that found the
 * queue full has called the invoker's "full" handler and stored nothing.
 * Callbacks are called, not returned; QUA_DIVERTED only tells the caller
 * that there is no result to use. */
#define QUA_DIVERTED 1

/* The message of a status: "success" for 0, the table's text for a code
 * in it, "unknown error" otherwise. Never NULL; the string is static. */
static inline const char *qua_status_message(int err) {
  switch (err) {
  case QUA_OK:
    return "success";
#define QUA__ERR_MSG(name, num, msg) \
  case QUA_##name:                   \
    return msg;
    QUA_STATUS_MAP(QUA__ERR_MSG)
#undef QUA__ERR_MSG
  default:
    return "unknown error";
  }
}

/* The name of a status without its prefix: "OK", "ENOTFOUND", or
 * "EUNKNOWN" for a code not in the table. */
static inline const char *qua_status_name(int err) {
  switch (err) {
  case QUA_OK:
    return "OK";
#define QUA__ERR_NAME(name, num, msg) \
  case QUA_##name:                    \
    return #name;
    QUA_STATUS_MAP(QUA__ERR_NAME)
#undef QUA__ERR_NAME
  default:
    return "EUNKNOWN";
  }
}

#endif /* QUA_STATUS_H */
