#ifndef SCREENS_PIPE_CLIBYAML_SHIM_H
#define SCREENS_PIPE_CLIBYAML_SHIM_H

#include <yaml.h>

// yaml_event_t keeps its payload in an anonymous union that Swift imports awkwardly;
// these accessors give the config loader one typed entry point per field.

static inline const char *screens_yaml_scalar_value(const yaml_event_t *event) {
    return (const char *)event->data.scalar.value;
}
static inline size_t screens_yaml_scalar_length(const yaml_event_t *event) {
    return event->data.scalar.length;
}
static inline yaml_scalar_style_t screens_yaml_scalar_style(const yaml_event_t *event) {
    return event->data.scalar.style;
}
static inline const char *screens_yaml_scalar_anchor(const yaml_event_t *event) {
    return (const char *)event->data.scalar.anchor;
}
static inline const char *screens_yaml_scalar_tag(const yaml_event_t *event) {
    return (const char *)event->data.scalar.tag;
}
static inline int screens_yaml_scalar_plain_implicit(const yaml_event_t *event) {
    return event->data.scalar.plain_implicit;
}
static inline const char *screens_yaml_alias_anchor(const yaml_event_t *event) {
    return (const char *)event->data.alias.anchor;
}
static inline const char *screens_yaml_sequence_anchor(const yaml_event_t *event) {
    return (const char *)event->data.sequence_start.anchor;
}
static inline const char *screens_yaml_mapping_anchor(const yaml_event_t *event) {
    return (const char *)event->data.mapping_start.anchor;
}
static inline const char *screens_yaml_sequence_tag(const yaml_event_t *event) {
    return (const char *)event->data.sequence_start.tag;
}
static inline const char *screens_yaml_mapping_tag(const yaml_event_t *event) {
    return (const char *)event->data.mapping_start.tag;
}
static inline yaml_mapping_style_t screens_yaml_mapping_style(const yaml_event_t *event) {
    return event->data.mapping_start.style;
}
static inline yaml_sequence_style_t screens_yaml_sequence_style(const yaml_event_t *event) {
    return event->data.sequence_start.style;
}

#endif
