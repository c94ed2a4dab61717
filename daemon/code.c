/* code.c -- the machine code a callentry runs, as Describe sends it (EntryImpl.machine_code). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "quad-internal.h"
#include "registry.h"

/* Room for one part's "NAME.ENTRY" (or "#ID.ENTRY", "NAME.(step)"). */
#define LABEL_MAX (QUA_NAME_MAX + 1 + QUA_NAME_MAX + 1)

/* Writes "q.put", the quaject's published name (or #ID) and its callentry, into buf. */
static void entry_label(char *buf, uint64_t id, int entry) {
  const quad_obj_t *o = quad_reg_by_id(&quad_srv->reg, id);
  const qua_type_t *t = o != NULL ? qua_quaject_type(o->q) : NULL;
  const char *e = entry == QUA_ENTRY_BODY                          ? "(step)"
                  : t != NULL && entry >= 0 && entry < t->nentries ? t->entries[entry].name
                                                                   : "?";
  if (o != NULL && o->name != NULL)
    snprintf(buf, LABEL_MAX, "%s.%s", o->name, e);
  else
    snprintf(buf, LABEL_MAX, "#%" PRIu64 ".%s", id, e);
}

size_t quad_code_message_size(const qua_code_t *c) {
  return sizeof(Qua__V1__EntryCode) +
         c->nparts * (sizeof(Qua__V1__CodePart) + sizeof(Qua__V1__CodePart *) + LABEL_MAX) +
         c->nholes * (sizeof(Qua__V1__CodeHole) + sizeof(Qua__V1__CodeHole *)) + c->size;
}

Qua__V1__EntryCode *quad_code_message(void *block, const qua_code_t *c) {
  /* The structures first, then the pointer arrays, then the bytes and strings. */
  Qua__V1__EntryCode *m = block;
  Qua__V1__CodePart *parts = (Qua__V1__CodePart *)(m + 1);
  Qua__V1__CodeHole *holes = (Qua__V1__CodeHole *)(parts + c->nparts);
  Qua__V1__CodePart **pp = (Qua__V1__CodePart **)(holes + c->nholes);
  Qua__V1__CodeHole **hp = (Qua__V1__CodeHole **)(pp + c->nparts);
  uint8_t *bytes = (uint8_t *)(hp + c->nholes);
  char *labels = (char *)bytes + c->size;
  qua__v1__entry_code__init(m);
  m->machine = c->machine;
  m->addr = c->addr;
  m->entry = c->entry;
  m->text_end = c->text_end;
  m->bytes.len = c->size;
  m->bytes.data = bytes;
  memcpy(bytes, c->bytes, c->size);
  m->parts = pp;
  m->n_parts = c->nparts;
  for (size_t i = 0; i < c->nparts; i++) {
    qua__v1__code_part__init(&parts[i]);
    entry_label(labels + i * LABEL_MAX, c->parts[i].quaject, c->parts[i].entry);
    parts[i].entry = labels + i * LABEL_MAX;
    parts[i].variant = (char *)c->parts[i].variant;
    parts[i].offset = c->parts[i].offset;
    pp[i] = &parts[i];
  }
  m->holes = hp;
  m->n_holes = c->nholes;
  for (size_t i = 0; i < c->nholes; i++) {
    const qua_code_hole_t *h = &c->holes[i];
    qua__v1__code_hole__init(&holes[i]);
    holes[i].name = (char *)h->name;
    holes[i].offset = h->offset;
    holes[i].size = h->bytes;
    holes[i].value = h->value;
    holes[i].pcrel = h->pcrel;
    if (h->part >= 0 && (size_t)h->part < c->nparts)
      holes[i].target = parts[h->part].entry;
    hp[i] = &holes[i];
  }
  return m;
}
