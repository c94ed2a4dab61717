/* mkseeds.c -- writes the seed corpora of the frame and dispatch harnesses (tests/fuzz/corpus).
 *
 * Usage: fuzz-mkseeds CORPUS-FOLDER. For every method of service Qua, one short scenario
 * that reaches it with a valid request (a queue or tee created first where the method needs
 * a handle), written twice: corpus/dispatch/<method> in fuzz-dispatch's record form, and
 * corpus/frame/<method> as the framed stream a client sends, after fuzz-frame's control
 * byte. The files are committed; run this again when qua.proto changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frame.h"

typedef struct seed {
  quap_buf_t records; /* fuzz-dispatch's form */
  quap_buf_t frames;  /* the stream */
  uint64_t id;
} seed_t;

static void die(const char *what) {
  fprintf(stderr, "fuzz-mkseeds: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Adds one request to both forms. */
static void add(seed_t *s, unsigned method, const ProtobufCMessage *msg) {
  size_t n = msg != NULL ? protobuf_c_message_get_packed_size(msg) : 0;
  if (n > 0xffff || quap_buf_reserve(&s->records, 3 + n) < 0)
    die("request too large");
  uint8_t *p = s->records.data + s->records.len;
  p[0] = (uint8_t)method;
  p[1] = (uint8_t)(n >> 8);
  p[2] = (uint8_t)n;
  if (n > 0)
    protobuf_c_message_pack(msg, p + 3);
  s->records.len += 3 + n;
  if (quap_request_append(&s->frames, ++s->id, method, msg) < 0)
    die("framing");
}

static void write_file(const char *folder, const char *sub, const char *name, const uint8_t *pre,
                       size_t prelen, const quap_buf_t *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", folder, sub);
  if (mkdir(path, 0755) < 0 && errno != EEXIST)
    die(path);
  snprintf(path, sizeof path, "%s/%s/%s", folder, sub, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(pre, 1, prelen, f) != prelen || fwrite(b->data, 1, b->len, f) != b->len ||
      fclose(f) != 0)
    die(path);
}

/* Create `type` with params (NULL-terminated), optionally named. */
static void create(seed_t *s, const char *type, const char *name, const char *p0,
                   const char *p1) {
  char *params[2];
  Qua__V1__CreateRequest m = QUA__V1__CREATE_REQUEST__INIT;
  m.type = (char *)type;
  m.name = (char *)(name != NULL ? name : "");
  if (p0 != NULL)
    params[m.n_params++] = (char *)p0;
  if (p1 != NULL)
    params[m.n_params++] = (char *)p1;
  m.params = params;
  add(s, QUAP_CREATE, &m.base);
}

static void invoke(seed_t *s, uint64_t handle, const char *entry, uint64_t *args, size_t nargs) {
  Qua__V1__InvokeRequest m = QUA__V1__INVOKE_REQUEST__INIT;
  m.handle = handle;
  m.entry = (char *)entry;
  m.args = args;
  m.n_args = nargs;
  add(s, QUAP_INVOKE, &m.base);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fuzz-mkseeds CORPUS-FOLDER\n");
    return 2;
  }
  const char *folder = argv[1];
  uint64_t one = 1, two[2] = {7, 9};
  for (unsigned method = 0; method < QUAP_NMETHODS; method++) {
    seed_t s = {0};
    quap_buf_init(&s.records);
    quap_buf_init(&s.frames);
    switch (method) {
    case QUAP_HELLO: {
      Qua__V1__HelloRequest m = QUA__V1__HELLO_REQUEST__INIT;
      m.version = QUAP_VERSION;
      m.client = (char *)"fuzz";
      add(&s, method, &m.base);
      break;
    }
    case QUAP_LIST_TYPES:
    case QUAP_STATS:
      add(&s, method, NULL);
      break;
    case QUAP_CREATE:
      create(&s, "queue", "q", "capacity=8", "notify=1");
      create(&s, "counter", NULL, NULL, NULL);
      create(&s, "queue", NULL, "target=m68k", "capacity=4");
      break;
    case QUAP_DESTROY: {
      create(&s, "queue", NULL, NULL, NULL);
      Qua__V1__DestroyRequest m = QUA__V1__DESTROY_REQUEST__INIT;
      m.handle = 1;
      m.force = true;
      add(&s, method, &m.base);
      break;
    }
    case QUAP_PUBLISH: {
      create(&s, "queue", NULL, NULL, NULL);
      Qua__V1__PublishRequest m = QUA__V1__PUBLISH_REQUEST__INIT;
      m.handle = 1;
      m.name = (char *)"pub";
      add(&s, method, &m.base);
      break;
    }
    case QUAP_UNPUBLISH: {
      create(&s, "queue", "pub", NULL, NULL);
      Qua__V1__UnpublishRequest m = QUA__V1__UNPUBLISH_REQUEST__INIT;
      m.name = (char *)"pub";
      add(&s, method, &m.base);
      break;
    }
    case QUAP_OPEN: {
      create(&s, "counter", "c", NULL, NULL);
      Qua__V1__OpenRequest m = QUA__V1__OPEN_REQUEST__INIT;
      m.name = (char *)"c";
      add(&s, method, &m.base);
      break;
    }
    case QUAP_WIRE:
    case QUAP_UNWIRE: {
      create(&s, "tee", NULL, "n=2", NULL);
      create(&s, "queue", NULL, "capacity=4", NULL);
      Qua__V1__WireRequest m = QUA__V1__WIRE_REQUEST__INIT;
      m.src = 1;
      m.callout = (char *)"out0";
      m.dst = 2;
      m.entry = (char *)"put";
      add(&s, QUAP_WIRE, &m.base);
      invoke(&s, 1, "put", &one, 1);
      if (method == QUAP_UNWIRE) {
        Qua__V1__UnwireRequest u = QUA__V1__UNWIRE_REQUEST__INIT;
        u.src = 1;
        u.callout = (char *)"out0";
        add(&s, method, &u.base);
      }
      break;
    }
    case QUAP_INVOKE:
      create(&s, "queue", NULL, "capacity=2", NULL);
      invoke(&s, 1, "put", &one, 1);
      invoke(&s, 1, "put", &one, 1);
      invoke(&s, 1, "put", &one, 1);
      invoke(&s, 1, "get", NULL, 0);
      invoke(&s, 1, "count", NULL, 0);
      break;
    case QUAP_INVOKE_BATCH: {
      create(&s, "counter", NULL, NULL, NULL);
      Qua__V1__InvokeRequest c0 = QUA__V1__INVOKE_REQUEST__INIT, c1 = c0;
      c0.handle = c1.handle = 1;
      c0.entry = (char *)"add";
      c0.args = two;
      c0.n_args = 1;
      c1.entry = (char *)"read";
      Qua__V1__InvokeRequest *calls[2] = {&c0, &c1};
      Qua__V1__InvokeBatchRequest m = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
      m.calls = calls;
      m.n_calls = 2;
      add(&s, method, &m.base);
      break;
    }
    case QUAP_BIND:
    case QUAP_UNBIND: {
      create(&s, "queue", NULL, "capacity=2", NULL);
      Qua__V1__BindRequest m = QUA__V1__BIND_REQUEST__INIT;
      m.handle = 1;
      m.callback = (char *)"notempty";
      add(&s, QUAP_BIND, &m.base);
      invoke(&s, 1, "put", &one, 1);
      if (method == QUAP_UNBIND) {
        Qua__V1__UnbindRequest u = QUA__V1__UNBIND_REQUEST__INIT;
        u.binding = 1;
        add(&s, method, &u.base);
      }
      break;
    }
    case QUAP_CREDIT: {
      create(&s, "tee", NULL, "n=1", NULL);
      Qua__V1__BindRequest m = QUA__V1__BIND_REQUEST__INIT;
      m.handle = 1;
      m.callout = (char *)"out0";
      m.credits = 1;
      add(&s, QUAP_BIND, &m.base);
      invoke(&s, 1, "put", &one, 1);
      invoke(&s, 1, "put", two, 1);
      Qua__V1__CreditRequest c = QUA__V1__CREDIT_REQUEST__INIT;
      c.binding = 1;
      c.credits = 4;
      add(&s, method, &c.base);
      break;
    }
    case QUAP_LIST: {
      create(&s, "queue", "listed", NULL, NULL);
      Qua__V1__ListRequest m = QUA__V1__LIST_REQUEST__INIT;
      add(&s, method, &m.base);
      break;
    }
    case QUAP_DESCRIBE: {
      create(&s, "queue", NULL, NULL, NULL);
      Qua__V1__DescribeRequest m = QUA__V1__DESCRIBE_REQUEST__INIT;
      m.handle = 1;
      add(&s, method, &m.base);
      break;
    }
    case QUAP_CLOSE: {
      create(&s, "queue", NULL, NULL, NULL);
      Qua__V1__CloseRequest m = QUA__V1__CLOSE_REQUEST__INIT;
      m.handle = 1;
      add(&s, method, &m.base);
      invoke(&s, 1, "put", &one, 1);
      break;
    }
    case QUAP_LINK_OPEN:
    case QUAP_LINK_PUSH: {
      create(&s, "queue", "target", "capacity=2", NULL);
      Qua__V1__LinkOpenRequest m = QUA__V1__LINK_OPEN_REQUEST__INIT;
      m.link = 0x1234;
      m.remote = (char *)"target";
      m.entry = (char *)"put";
      m.first_seq = 1;
      add(&s, QUAP_LINK_OPEN, &m.base);
      if (method == QUAP_LINK_PUSH) {
        uint64_t items[3] = {1, 2, 3};
        Qua__V1__LinkPushRequest p = QUA__V1__LINK_PUSH_REQUEST__INIT;
        p.link = 0x1234;
        p.first_seq = 1;
        p.items = items;
        p.n_items = 3;
        add(&s, method, &p.base);
      }
      break;
    }
    default:
      fprintf(stderr, "fuzz-mkseeds: method %u has no scenario: add one\n", method);
      return 1;
    }
    const char *name = quap_method(method)->name;
    /* fuzz-frame: reads of 1 to 64 bytes, the default frame limit. */
    uint8_t control = (uint8_t)(method * 7 % 64);
    write_file(folder, "dispatch", name, NULL, 0, &s.records);
    write_file(folder, "frame", name, &control, 1, &s.frames);
    quap_buf_fini(&s.records);
    quap_buf_fini(&s.frames);
  }
  return 0;
}
