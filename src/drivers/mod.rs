//! Task drivers: the Driver trait and raw_exec, mock.
