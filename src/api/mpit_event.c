/* MPI_T events (MPI 4.1 section 15.3.8): dmpi defines no event types, so
 * MPI_T_event_get_num gives 0 and every call naming an event type, a
 * registration or an event instance reports the invalid index, name or
 * handle; nothing is ever called back. */
#include "api/mpit.h"

int PMPI_T_event_get_num(int *num_events)
{
    DMPI_T_CHECK_INIT();
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}
DMPI_ALIAS(T_event_get_num)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    DMPI_T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}
DMPI_ALIAS(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    DMPI_T_CHECK_INIT();
    if (!name || !event_index) return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
DMPI_ALIAS(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    DMPI_T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}
DMPI_ALIAS(T_event_handle_alloc)

/* No registration can exist: every call on one names an invalid handle. */
#define NO_REGISTRATION()                 \
    do {                                  \
        DMPI_T_CHECK_INIT();              \
        return MPI_T_ERR_INVALID_HANDLE;  \
    } while (0)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_handle_free)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_handle_get_info)

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_handle_set_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_register_callback)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_callback_get_info)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_callback_set_info)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_set_dropped_handler)

/* Event instances exist only inside callbacks, and there are none. */
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_copy)

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_read)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    NO_REGISTRATION();
}
DMPI_ALIAS(T_event_get_source)
